import { Alert, Button, Card, Flex, Form, Input, Result, Typography } from 'antd'
import { useMutation } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router-dom'
import { resetByPhone, sendValidate } from '../../../api/resource/resource'
import LanguageSwitch from '../../../components/LanguageSwitch'
import { website } from '../../../config/website'
import { md5 } from '../../../utils/md5'

interface ForgetForm {
  tenantId: string
  phone: string
  code: string
  password: string
  password1: string
}

const PHONE = /^\+?\d{6,15}$/

/**
 * /forget: a new password by a code sent to the account's phone. The page says the same whether
 * or not the number has an account ("if it belongs to an account, a code is on its way").
 */
export default function Forget() {
  const { t } = useTranslation()
  const [form] = Form.useForm<ForgetForm>()
  const [codeId, setCodeId] = useState('')
  const [sentNote, setSentNote] = useState(false)
  const [wait, setWait] = useState(0)
  const [done, setDone] = useState(false)

  useEffect(() => {
    if (wait <= 0) return
    const timer = window.setTimeout(() => setWait((w) => w - 1), 1000)
    return () => window.clearTimeout(timer)
  }, [wait])

  const tenantOf = (): string => {
    const typed = form.getFieldValue('tenantId') as string | undefined
    return website.tenantMode && typed ? typed : website.tenantId
  }

  const sending = useMutation({
    mutationFn: async () => {
      const fields: (keyof ForgetForm)[] = website.tenantMode ? ['phone', 'tenantId'] : ['phone']
      const values = await form.validateFields(fields)
      return sendValidate(tenantOf(), values.phone.trim())
    },
    onSuccess: (id) => {
      setCodeId(id)
      setSentNote(true)
      setWait(60)
    },
  })

  const resetting = useMutation({
    mutationFn: (v: ForgetForm) =>
      resetByPhone({
        tenantId: tenantOf(),
        phone: v.phone.trim(),
        id: codeId,
        value: v.code.trim(),
        newPassword: md5(v.password),
      }),
    onSuccess: () => setDone(true),
  })

  return (
    <Flex
      vertical
      align="center"
      justify="center"
      gap={24}
      style={{
        minHeight: '100vh',
        padding: 16,
        background: 'linear-gradient(135deg, #0b3d91 0%, #1f6fd1 55%, #f5b301 140%)',
      }}
    >
      <Typography.Title level={2} style={{ color: '#fff', margin: 0, textAlign: 'center' }}>
        {t('app.title')}
      </Typography.Title>
      <Card
        style={{ width: '100%', maxWidth: 400 }}
        title={t('forgetPage.title')}
        extra={<LanguageSwitch />}
      >
        {done ? (
          <Result
            status="success"
            title={t('forgetPage.done')}
            data-testid="forget-done"
            extra={
              <Link to="/login">
                <Button type="primary">{t('forgetPage.backToLogin')}</Button>
              </Link>
            }
          />
        ) : (
          <Form
            form={form}
            layout="vertical"
            data-testid="forget-form"
            initialValues={{ tenantId: website.tenantId }}
            onFinish={(v) => resetting.mutate(v)}
          >
            <Typography.Paragraph type="secondary">{t('forgetPage.intro')}</Typography.Paragraph>
            {website.tenantMode && (
              <Form.Item
                name="tenantId"
                label={t('forgetPage.tenantId')}
                rules={[{ required: true }]}
              >
                <Input data-testid="forget-tenant" />
              </Form.Item>
            )}
            <Form.Item
              name="phone"
              label={t('forgetPage.phone')}
              rules={[
                { required: true, message: t('forgetPage.phoneRequired') },
                { pattern: PHONE, message: t('forgetPage.phoneInvalid') },
              ]}
            >
              <Input inputMode="tel" autoComplete="tel" data-testid="forget-phone" />
            </Form.Item>
            <Form.Item label={t('forgetPage.code')} required>
              <Flex gap={8}>
                <Form.Item
                  name="code"
                  noStyle
                  rules={[{ required: true, message: t('forgetPage.codeRequired') }]}
                >
                  <Input
                    inputMode="numeric"
                    autoComplete="one-time-code"
                    data-testid="forget-code"
                  />
                </Form.Item>
                <Button
                  data-testid="forget-send"
                  disabled={wait > 0}
                  loading={sending.isPending}
                  onClick={() => sending.mutate()}
                >
                  {wait > 0 ? t('forgetPage.resend', { seconds: wait }) : t('forgetPage.send')}
                </Button>
              </Flex>
            </Form.Item>
            {sentNote && (
              <Alert
                type="info"
                showIcon
                style={{ marginBottom: 16 }}
                title={t('forgetPage.sent')}
              />
            )}
            <Form.Item
              name="password"
              label={t('forgetPage.password')}
              rules={[
                { required: true, message: t('forgetPage.passwordRequired') },
                { min: 6, message: t('forgetPage.passwordShort') },
              ]}
            >
              <Input.Password autoComplete="new-password" data-testid="forget-password" />
            </Form.Item>
            <Form.Item
              name="password1"
              label={t('forgetPage.password1')}
              dependencies={['password']}
              rules={[
                { required: true, message: t('forgetPage.passwordRequired') },
                ({ getFieldValue }) => ({
                  validator: (_, value) =>
                    !value || value === getFieldValue('password')
                      ? Promise.resolve()
                      : Promise.reject(new Error(t('forgetPage.passwordDiffer'))),
                }),
              ]}
            >
              <Input.Password autoComplete="new-password" data-testid="forget-password1" />
            </Form.Item>
            <Button
              type="primary"
              htmlType="submit"
              block
              disabled={!codeId}
              loading={resetting.isPending}
              data-testid="forget-submit"
            >
              {t('forgetPage.submit')}
            </Button>
            <Flex justify="center" style={{ marginTop: 16 }}>
              <Link to="/login">{t('forgetPage.backToLogin')}</Link>
            </Flex>
          </Form>
        )}
      </Card>
    </Flex>
  )
}
