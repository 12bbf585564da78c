import { PlusOutlined } from '@ant-design/icons'
import { App, Avatar, Button, Card, Form, Input, Tabs, Upload } from 'antd'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { putFile, updateInfo, updatePassword, type UserInfoForm } from '../../../api/user'
import { userInfoQuery } from '../../../api/user/queries'
import logo from '../../../assets/logo.svg'
import { useSessionStore } from '../../../stores/session'
import { checkAvatar, checkPhone } from '../../../utils/validate'
import NotifySettingsForm from '../../resource/notifySetting'

interface PasswordForm {
  oldPassword: string
  newPassword: string
  newPassword1: string
}

function InfoTab() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<UserInfoForm>()
  const avatar = Form.useWatch('avatar', form)
  const [uploading, setUploading] = useState(false)
  const queryClient = useQueryClient()
  const info = useQuery(userInfoQuery())

  useEffect(() => {
    if (!info.data) return
    form.setFieldsValue({
      avatar: info.data.avatar ?? '',
      realName: info.data.realName ?? '',
      name: info.data.name ?? '',
      phone: info.data.phone ?? '',
      email: info.data.email ?? '',
    })
  }, [info.data, form])

  const saving = useMutation({
    mutationFn: (values: UserInfoForm) => updateInfo({ ...values, avatar: values.avatar ?? '' }),
    onSuccess: (_, values) => {
      // The form already shows what was saved: the cached info is only marked out of date (read
      // again when the page opens next), not reloaded under the user's eyes.
      void queryClient.invalidateQueries({
        queryKey: userInfoQuery().queryKey,
        refetchType: 'none',
      })
      const session = useSessionStore.getState()
      if (session.userInfo) {
        session.setUserInfo({
          ...session.userInfo,
          avatar: values.avatar ?? '',
          real_name: values.realName,
          nick_name: values.name || session.userInfo.nick_name,
        })
      }
      void message.success(t('info.saved'))
    },
  })

  return (
    <Form<UserInfoForm>
      form={form}
      layout="vertical"
      style={{ maxWidth: 480 }}
      onFinish={(values) => saving.mutate(values)}
      data-testid="info-form"
    >
      <Form.Item label={t('info.avatar')} name="avatar">
        <Upload
          accept=".jpg,.jpeg,.png,image/jpeg,image/png"
          showUploadList={false}
          beforeUpload={(file) => {
            const problem = checkAvatar(file)
            if (problem) {
              void message.error(t(problem))
              return Upload.LIST_IGNORE
            }
            return true
          }}
          customRequest={({ file, onSuccess, onError }) => {
            setUploading(true)
            putFile(file as Blob, (file as File).name).then(
              (uploaded) => {
                form.setFieldValue('avatar', uploaded.link)
                onSuccess?.(uploaded)
                setUploading(false)
              },
              (error: unknown) => {
                onError?.(error instanceof Error ? error : new Error(String(error)))
                setUploading(false)
              },
            )
          }}
        >
          <Button
            type="dashed"
            style={{ width: 104, height: 104, padding: 0 }}
            loading={uploading}
            aria-label={t('info.upload')}
            data-testid="avatar-upload"
          >
            {avatar ? <Avatar shape="square" size={96} src={avatar} /> : <PlusOutlined />}
          </Button>
        </Upload>
      </Form.Item>
      <Form.Item
        label={t('info.realName')}
        name="realName"
        rules={[{ required: true, message: t('info.realNameRequired') }]}
      >
        <Input />
      </Form.Item>
      <Form.Item
        label={t('info.name')}
        name="name"
        rules={[{ required: true, message: t('info.nameRequired') }]}
      >
        <Input />
      </Form.Item>
      <Form.Item
        label={t('info.phone')}
        name="phone"
        required
        rules={[
          {
            validator: (_, value: string | undefined) => {
              const problem = checkPhone(value)
              return problem ? Promise.reject(new Error(t(problem))) : Promise.resolve()
            },
          },
        ]}
      >
        <Input data-testid="info-phone" />
      </Form.Item>
      <Form.Item
        label={t('info.email')}
        name="email"
        rules={[{ type: 'email', message: t('info.emailFormat') }]}
      >
        <Input />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={saving.isPending}>
        {t('info.submit')}
      </Button>
    </Form>
  )
}

function PasswordTab() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [form] = Form.useForm<PasswordForm>()
  const saving = useMutation({
    mutationFn: ({ oldPassword, newPassword, newPassword1 }: PasswordForm) =>
      updatePassword(oldPassword, newPassword, newPassword1),
    onSuccess: () => {
      void message.success(t('info.saved'))
      form.resetFields()
    },
  })

  return (
    <Form<PasswordForm>
      form={form}
      layout="vertical"
      style={{ maxWidth: 480 }}
      onFinish={(values) => saving.mutate(values)}
      data-testid="password-form"
    >
      <Form.Item
        label={t('info.oldPassword')}
        name="oldPassword"
        rules={[{ required: true, message: t('info.oldPasswordRequired') }]}
      >
        <Input.Password autoComplete="current-password" data-testid="old-password" />
      </Form.Item>
      <Form.Item
        label={t('info.newPassword')}
        name="newPassword"
        rules={[{ required: true, message: t('info.newPasswordRequired') }]}
      >
        <Input.Password autoComplete="new-password" data-testid="new-password" />
      </Form.Item>
      <Form.Item
        label={t('info.newPassword1')}
        name="newPassword1"
        dependencies={['newPassword']}
        rules={[
          { required: true, message: t('info.newPassword1Required') },
          ({ getFieldValue }) => ({
            validator: (_, value: string | undefined) =>
              !value || value === getFieldValue('newPassword')
                ? Promise.resolve()
                : Promise.reject(new Error(t('info.passwordMismatch'))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" data-testid="new-password1" />
      </Form.Item>
      <Button
        type="primary"
        htmlType="submit"
        loading={saving.isPending}
        data-testid="password-submit"
      >
        {t('info.submit')}
      </Button>
    </Form>
  )
}

/** /info/index: the signed-in user's own information and password. */
export default function Info() {
  const { t } = useTranslation()
  const fallbackAvatar = useSessionStore((s) => s.userInfo?.avatar) || logo
  return (
    <Card data-testid="info-page" title={t('route.info')} extra={<Avatar src={fallbackAvatar} />}>
      <Tabs
        items={[
          { key: 'info', label: t('info.tabInfo'), children: <InfoTab /> },
          { key: 'password', label: t('info.tabPassword'), children: <PasswordTab /> },
          { key: 'notify', label: t('info.tabNotify'), children: <NotifySettingsForm /> },
        ]}
      />
    </Card>
  )
}
