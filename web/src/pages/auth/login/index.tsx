import { Alert, Button, Card, Flex, Form, Input, Typography } from 'antd'
import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router-dom'
import { getCaptcha, getTenantByDomain, signIn, type Captcha } from '../../../api/auth'
import LanguageSwitch from '../../../components/LanguageSwitch'
import RegisterDialog from '../../../components/RegisterDialog'
import { website } from '../../../config/website'
import { useSessionStore } from '../../../stores/session'
import ServerStatus from './ServerStatus'

interface LoginForm {
  tenantId: string
  username: string
  password: string
  code: string
}

/**
 * /login: tenant id (when tenant mode is on and the site address names no tenant), account,
 * password and captcha (click the image for a new one). A failure shows the server's
 * error_description and sets no session.
 */
export default function Login() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const [form] = Form.useForm<LoginForm>()
  const [captcha, setCaptcha] = useState<Captcha | null>(null)
  /** undefined while asking the server, null when the address names no tenant. */
  const [resolvedTenant, setResolvedTenant] = useState<string | null | undefined>(
    website.tenantMode ? undefined : website.tenantId,
  )
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const [registering, setRegistering] = useState(false)

  const refreshCaptcha = useCallback(() => {
    if (!website.captchaMode) return
    getCaptcha().then(
      (next) => setCaptcha(next),
      () => setCaptcha(null),
    )
  }, [])

  useEffect(() => {
    refreshCaptcha()
    if (!website.tenantMode) return
    let current = true
    getTenantByDomain(window.location.hostname).then(
      (tenantId) => current && setResolvedTenant(tenantId),
      () => current && setResolvedTenant(null),
    )
    return () => {
      current = false
    }
  }, [refreshCaptcha])

  const showTenant = website.tenantMode && resolvedTenant === null

  const submit = async (values: LoginForm) => {
    setBusy(true)
    setError('')
    try {
      const data = await signIn({
        tenantId: (showTenant ? values.tenantId : resolvedTenant) || website.tenantId,
        username: values.username,
        password: values.password,
        captchaKey: captcha?.key,
        captchaCode: values.code,
      })
      useSessionStore.getState().signIn(data)
      void navigate('/', { replace: true })
    } catch (failure) {
      setError(failure instanceof Error && failure.message ? failure.message : t('login.failed'))
      form.setFieldValue('code', '')
      refreshCaptcha()
    } finally {
      setBusy(false)
    }
  }

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
        title={t('login.heading')}
        extra={<LanguageSwitch />}
      >
        {error && (
          <Alert
            data-testid="login-error"
            type="error"
            showIcon
            title={error}
            style={{ marginBottom: 16 }}
          />
        )}
        <Form<LoginForm>
          form={form}
          layout="vertical"
          initialValues={{ tenantId: website.tenantId }}
          onFinish={(values) => void submit(values)}
          data-testid="login-form"
        >
          {showTenant && (
            <Form.Item
              label={t('login.tenantId')}
              name="tenantId"
              rules={[{ required: true, message: t('login.tenantRequired') }]}
            >
              <Input data-testid="login-tenant" />
            </Form.Item>
          )}
          <Form.Item
            label={t('login.account')}
            name="username"
            rules={[{ required: true, message: t('login.accountRequired') }]}
          >
            <Input autoComplete="username" data-testid="login-account" />
          </Form.Item>
          <Form.Item
            label={t('login.password')}
            name="password"
            rules={[{ required: true, message: t('login.passwordRequired') }]}
          >
            <Input.Password autoComplete="current-password" data-testid="login-password" />
          </Form.Item>
          {website.captchaMode && (
            <Form.Item label={t('login.captcha')} required>
              <Flex gap={8}>
                <Form.Item
                  name="code"
                  noStyle
                  rules={[{ required: true, message: t('login.captchaRequired') }]}
                >
                  <Input data-testid="login-captcha" autoComplete="off" />
                </Form.Item>
                <img
                  src={captcha?.image}
                  alt={t('login.captcha')}
                  title={t('login.captchaRefresh')}
                  data-testid="captcha-image"
                  onClick={refreshCaptcha}
                  style={{
                    width: 96,
                    height: 32,
                    flex: 'none',
                    cursor: 'pointer',
                    borderRadius: 4,
                  }}
                />
              </Flex>
            </Form.Item>
          )}
          <Button
            type="primary"
            block
            htmlType="submit"
            loading={busy}
            disabled={resolvedTenant === undefined}
            data-testid="login-submit"
          >
            {t('login.submit')}
          </Button>
        </Form>
        <Flex justify="space-between" align="center" style={{ marginTop: 16 }} wrap gap={8}>
          <ServerStatus />
          <Flex gap={12}>
            <Typography.Link onClick={() => setRegistering(true)} data-testid="register-open">
              {t('register.open')}
            </Typography.Link>
            <Link to="/forget">{t('login.forget')}</Link>
          </Flex>
        </Flex>
      </Card>
      <RegisterDialog
        open={registering}
        resolvedTenantId={resolvedTenant ?? null}
        onClose={() => setRegistering(false)}
        onSubmitted={() => setRegistering(false)}
      />
    </Flex>
  )
}
